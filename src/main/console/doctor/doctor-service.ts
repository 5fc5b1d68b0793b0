import type { DoctorReport } from '@shared/ipc/doctor'
import type { DoctorRepository } from '../../store'
import { runDoctor, type DoctorOptions } from './doctor'

/**
 * The doctor for the consoles and the CLI: one run at a time (a second caller shares the running
 * one), each report stored, start and end announced so every open Providers view follows.
 */
export class DoctorService {
  private running: Promise<DoctorReport> | undefined

  constructor(
    private readonly options: DoctorOptions & { reports: DoctorRepository; onChange?: (change: { running: boolean; finishedAt?: string }) => void }
  ) {}

  run(): Promise<DoctorReport> {
    this.running ??= this.runOnce().finally(() => (this.running = undefined))
    return this.running
  }

  latest(): DoctorReport | null {
    return this.options.reports.latest()
  }

  private async runOnce(): Promise<DoctorReport> {
    this.options.onChange?.({ running: true })
    try {
      const report = await runDoctor(this.options)
      this.options.reports.save(report)
      this.options.onChange?.({ running: false, finishedAt: report.finishedAt })
      return report
    } catch (error) {
      this.options.onChange?.({ running: false })
      throw error
    }
  }
}
