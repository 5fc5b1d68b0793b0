import type { HistoryStatus } from '@shared/ipc/history'

/**
 * A program that ran and exited non-zero: the call's status is `success` (Airlock ran it as
 * asked), but the operator must not read it as a green success. Both History and the Agents view
 * show it as `exit N`, in the warning colour, with the status in the title.
 */
export function nonZeroExit(status: HistoryStatus, exitCode: number | null | undefined): number | undefined {
  return status === 'success' && typeof exitCode === 'number' && exitCode !== 0 ? exitCode : undefined
}

/** The sentence behind an `exit N` label. */
export function nonZeroExitTitle(exitCode: number): string {
  return `The call ran (status success), and the program exited with code ${exitCode}.`
}
