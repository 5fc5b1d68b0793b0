import { z } from 'zod'
import { settingAssignmentSchema, settingKeySchema, settingViewSchema } from '../settings'
import type { NamespaceSpec } from './contract'

/** The `settings` namespace: read and change the operator's settings, validated per key. */
export const settingsContract = {
  calls: {
    list: { input: z.object({}).strict(), output: z.array(settingViewSchema) },
    get: { input: z.object({ key: settingKeySchema }).strict(), output: settingViewSchema },
    set: { input: settingAssignmentSchema, output: settingViewSchema },
    reset: { input: z.object({ key: settingKeySchema }).strict(), output: settingViewSchema }
  },
  events: {
    changed: { payload: settingViewSchema }
  }
} satisfies NamespaceSpec
