import type { Database } from 'better-sqlite3'
import { doctorReportSchema, type DoctorReport } from '@shared/ipc/doctor'

/** Reports kept: enough to see when a guarantee changed, never a growing table. */
const kept = 20

/** The doctor's reports (SPEC §9), newest last; the Providers view and `airlock doctor` read the latest. */
export class DoctorRepository {
  constructor(private readonly db: Database) {}

  /** Stores a report and forgets all but the newest `kept`. */
  save(report: DoctorReport): void {
    this.db.transaction(() => {
      this.db.prepare('insert into doctor_reports (finished_at, report_json) values (?, ?)').run(report.finishedAt, JSON.stringify(report))
      this.db.prepare('delete from doctor_reports where id not in (select id from doctor_reports order by id desc limit ?)').run(kept)
    })()
  }

  /** The newest report; a row this build cannot read (an older shape) counts as none. */
  latest(): DoctorReport | null {
    const row = this.db.prepare('select report_json from doctor_reports order by id desc limit 1').get() as { report_json: string } | undefined
    if (!row) return null
    const parsed = doctorReportSchema.safeParse(JSON.parse(row.report_json))
    return parsed.success ? parsed.data : null
  }
}
