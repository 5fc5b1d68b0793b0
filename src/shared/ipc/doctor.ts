import { z } from 'zod'
import { isolationAxisNames } from '../resources'
import type { NamespaceSpec } from './contract'

/** What the doctor checks: the four isolation axes, and the network when a provider says it is off. */
export const doctorAxisNames = [...isolationAxisNames, 'networkOff'] as const

/** One axis the doctor looks at. */
export type DoctorAxis = (typeof doctorAxisNames)[number]

/**
 * An axis on this machine: `verified` (claimed, and every escape attempt for it held), `failed`
 * (claimed, and an attempt got through), `unverified` (claimed, but the attempts could not run:
 * the provider is unavailable or a run errored), `not_claimed` (the provider does not claim it, so
 * nothing is tried: an unisolated provider is reported as such, never attacked on the host).
 */
export const doctorAxisStatusSchema = z.enum(['verified', 'failed', 'unverified', 'not_claimed'])

/** One escape attempt and what came of it. */
export const doctorCheckSchema = z.object({
  id: z.string(),
  axis: z.enum(doctorAxisNames),
  attack: z.string(),
  /** `held`: the boundary stopped it; `escaped`: it got through; `error`: it could not be run. */
  outcome: z.enum(['held', 'escaped', 'error']),
  detail: z.string()
})

/** One provider's result: availability with the reason and the fix, then each axis and the attempts behind it. */
export const doctorProviderSchema = z.object({
  providerId: z.string(),
  available: z.boolean(),
  reason: z.string().optional(),
  fix: z.string().optional(),
  mechanism: z.string().optional(),
  axes: z.array(
    z.object({ axis: z.enum(doctorAxisNames), claimed: z.boolean(), status: doctorAxisStatusSchema, held: z.number().int(), tried: z.number().int() })
  ),
  checks: z.array(doctorCheckSchema)
})

/** A whole doctor run: when, on which machine, and every code-execution provider. */
export const doctorReportSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  machine: z.string(),
  providers: z.array(doctorProviderSchema)
})

export type DoctorCheck = z.infer<typeof doctorCheckSchema>
export type DoctorProviderResult = z.infer<typeof doctorProviderSchema>
export type DoctorReport = z.infer<typeof doctorReportSchema>
export type DoctorAxisStatus = z.infer<typeof doctorAxisStatusSchema>

/**
 * The `doctor` namespace (SPEC §9, §12): which isolation guarantees hold on this machine, checked
 * by real escape attempts against each code-execution provider that claims them.
 */
export const doctorContract = {
  calls: {
    /** Runs the doctor now (one run at a time: a second caller gets the same run) and stores its report. */
    run: { input: z.object({}).strict(), output: doctorReportSchema },
    /** The last stored report, if the doctor ever ran on this home. */
    latest: { input: z.object({}).strict(), output: z.object({ report: doctorReportSchema.nullable() }) }
  },
  events: {
    /** A run started or finished (the Providers view shows progress and then the report). */
    changed: { payload: z.object({ running: z.boolean(), finishedAt: z.string().optional() }) }
  }
} satisfies NamespaceSpec
