export { runDoctor, fixFor, type DoctorOptions } from './doctor'
export { doctorChecks, type DoctorCheckSpec, type Verdict } from './doctor-checks'
export { DoctorService } from './doctor-service'
