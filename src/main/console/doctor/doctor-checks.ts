import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { DoctorAxis } from '@shared/ipc/doctor'
import type { CommandResult } from '../../core'
import { processesNamed, type DoctorStage } from './doctor-stage'

/** What the doctor concluded from one attempt: whether the boundary held, and the evidence in a line. */
export type Verdict = { held: boolean; detail: string }

/**
 * One escape attempt of the doctor's corpus (SPEC §9): a bash command line run inside the provider
 * in the stage's workspace, and a judge that decides from the result and, above all, from the
 * host (the file outside, the canary process, the listener): a check never trusts the sandbox's
 * word that it failed. Commands use bash, coreutils and util-linux only, which every Airlock
 * image and host has.
 */
export type DoctorCheckSpec = {
  id: string
  axis: DoctorAxis
  attack: string
  command(stage: DoctorStage): string
  judge(result: CommandResult, stage: DoctorStage): Verdict | Promise<Verdict>
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`
const firstLine = (text: string) => text.trim().split('\n')[0]?.slice(0, 200) ?? ''
const said = (result: CommandResult) => firstLine(result.stdout) || firstLine(result.stderr) || `exit ${result.exitCode}`
/** A `rc=N` line the command printed (the exit code of the attempt itself, not of the run). */
const rcOf = (result: CommandResult) => Number(/rc=(\d+)/.exec(result.stdout)?.[1] ?? Number.NaN)
const statusField = (result: CommandResult, name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(result.stdout)?.[1]

/** The corpus, grouped by the axis each attempt tests. */
export const doctorChecks: readonly DoctorCheckSpec[] = [
  {
    id: 'fs-write-outside',
    axis: 'hostFilesystemRestricted',
    attack: 'write a file into a host folder outside the workspace',
    command: (stage) => `echo pwned > ${quote(join(stage.outside, 'pwned'))}; echo rc=$?`,
    judge: (result, stage) =>
      existsSync(join(stage.outside, 'pwned')) ? { held: false, detail: 'the file appeared on the host' } : { held: true, detail: `refused (${said(result)})` }
  },
  {
    id: 'fs-read-outside',
    axis: 'hostFilesystemRestricted',
    attack: 'read a secret file on the host outside the workspace',
    command: (stage) => `cat ${quote(join(stage.outside, 'secret.txt'))}; echo rc=$?`,
    judge: (result, stage) =>
      result.stdout.includes(stage.secret) ? { held: false, detail: 'the secret was read' } : { held: true, detail: `not readable (rc=${rcOf(result)})` }
  },
  {
    id: 'fs-symlink-out',
    axis: 'hostFilesystemRestricted',
    attack: 'plant a symlink in the workspace pointing at the host secret and read through it',
    command: (stage) => `ln -sfn ${quote(join(stage.outside, 'secret.txt'))} link-out && cat link-out; echo rc=$?`,
    judge: (result, stage) =>
      result.stdout.includes(stage.secret)
        ? { held: false, detail: 'the secret was read through the link' }
        : { held: true, detail: 'the link leads nowhere inside' }
  },
  {
    id: 'fs-list-parent',
    axis: 'hostFilesystemRestricted',
    attack: "list the folder that holds the workspace (the host's own files beside it)",
    // bash's own glob (getdents only): coreutils' ls fails under Debian's runsc, which would pass for "nothing visible".
    command: (stage) => `(shopt -s nullglob dotglob; for f in ${quote(stage.dir)}/*; do echo "\${f##*/}"; done); echo rc=$?`,
    judge: (result) =>
      result.stdout.includes('host-only.txt')
        ? { held: false, detail: 'host files beside the workspace are visible' }
        : { held: true, detail: 'only the workspace is visible' }
  },
  {
    id: 'fs-docker-socket',
    axis: 'hostFilesystemRestricted',
    attack: "reach the Docker engine's socket (root on the host by another name)",
    command: () => 'for s in /var/run/docker.sock /run/docker.sock; do test -S "$s" && echo "socket $s"; done; echo rc=0',
    judge: (result) => (/^socket /m.test(result.stdout) ? { held: false, detail: firstLine(result.stdout) } : { held: true, detail: 'no engine socket inside' })
  },
  {
    id: 'proc-see-host',
    axis: 'processContained',
    attack: 'find a host process by its command line in /proc',
    // The marker is assembled in a file so that grep's own command line does not hold it.
    command: (stage) =>
      `printf '%s%s' ${quote(stage.marker.slice(0, 8))} ${quote(stage.marker.slice(8))} > .doctor-marker; grep -l -F -f .doctor-marker /proc/[0-9]*/cmdline 2>/dev/null | head -3; rm -f .doctor-marker; echo rc=0`,
    judge: (result) =>
      /\/proc\/\d+\/cmdline/.test(result.stdout)
        ? { held: false, detail: `host process visible at ${firstLine(result.stdout)}` }
        : { held: true, detail: 'no host process visible' }
  },
  {
    id: 'proc-signal-host',
    axis: 'processContained',
    attack: 'kill a host process by its pid',
    command: (stage) => `kill -KILL ${stage.canaryPid}; echo rc=$?`,
    judge: async (result, stage) => {
      // A signal lands asynchronously (the target must be scheduled to die): watch for a second.
      for (let waited = 0; waited < 1000; waited += 50) {
        if (!stage.canaryAlive()) return { held: false, detail: 'the host process was killed' }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return { held: true, detail: `the host process lives (rc=${rcOf(result)})` }
    }
  },
  {
    id: 'proc-survivor',
    axis: 'processContained',
    attack: 'leave a background process running after the run ends (setsid, nohup)',
    command: (stage) =>
      `setsid sh -c 'sleep 300' ${quote(`${stage.marker}-bg`)} >/dev/null 2>&1 & nohup sh -c 'sleep 301' ${quote(`${stage.marker}-bg2`)} >/dev/null 2>&1 & echo started`,
    judge: async (_result, stage) => {
      // The run has returned: what it started must be gone (a short grace for the kill to land).
      for (let waited = 0; waited < 3000; waited += 100) {
        if (processesNamed(`${stage.marker}-bg`).length === 0) return { held: true, detail: 'nothing outlived the run' }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return { held: false, detail: `${processesNamed(`${stage.marker}-bg`).length} process(es) outlived the run` }
    }
  },
  {
    id: 'priv-capabilities',
    axis: 'privilegeEscalationBlocked',
    attack: 'hold capabilities or be allowed to gain privileges (setuid, file capabilities)',
    // no_new_privs as prctl reports it (setpriv): gVisor's /proc/self/status has no NoNewPrivs line.
    command: () => "grep -E '^CapEff:' /proc/self/status; setpriv -d 2>/dev/null | grep '^no_new_privs:'",
    judge: (result) => {
      const caps = statusField(result, 'CapEff')
      const noNewPrivs = /^no_new_privs:\s*(\d)/m.exec(result.stdout)?.[1]
      const held = caps !== undefined && /^0+$/.test(caps) && noNewPrivs === '1'
      return { held, detail: `CapEff ${caps ?? '?'}, NoNewPrivs ${noNewPrivs ?? '?'}` }
    }
  },
  {
    id: 'priv-root',
    axis: 'privilegeEscalationBlocked',
    attack: 'run as uid 0',
    command: () => 'id -u',
    judge: (result) => {
      const uid = result.stdout.trim()
      return { held: /^\d+$/.test(uid) && uid !== '0', detail: `runs as uid ${uid || '?'}` }
    }
  },
  {
    id: 'priv-userns',
    axis: 'privilegeEscalationBlocked',
    attack: 'create a user namespace to become root in it (unshare -r)',
    command: () => 'unshare -r id -u; echo rc=$?',
    judge: (result) =>
      rcOf(result) === 0
        ? { held: false, detail: 'a user namespace was created' }
        : { held: true, detail: `refused (${firstLine(result.stderr) || `rc=${rcOf(result)}`})` }
  },
  {
    id: 'sys-seccomp',
    axis: 'syscallsRestricted',
    attack: 'run without a seccomp filter',
    command: () => "grep '^Seccomp:' /proc/self/status",
    judge: (result) => {
      const mode = statusField(result, 'Seccomp')
      return { held: mode === '2', detail: `Seccomp mode ${mode ?? '?'}` }
    }
  },
  {
    id: 'sys-mount',
    axis: 'syscallsRestricted',
    attack: 'mount a filesystem',
    command: () => 'mkdir -p doctor-mnt && mount -t tmpfs none doctor-mnt; echo rc=$?',
    judge: (result) => (rcOf(result) === 0 ? { held: false, detail: 'the mount succeeded' } : { held: true, detail: `refused (rc=${rcOf(result)})` })
  },
  {
    id: 'sys-unshare',
    axis: 'syscallsRestricted',
    attack: 'enter a new mount namespace (unshare -m)',
    command: () => 'unshare -m true; echo rc=$?',
    judge: (result) => (rcOf(result) === 0 ? { held: false, detail: 'a mount namespace was created' } : { held: true, detail: `refused (rc=${rcOf(result)})` })
  },
  {
    id: 'net-loopback',
    axis: 'networkOff',
    attack: "connect to a TCP listener on the host's loopback",
    command: (stage) => `(exec 3<>/dev/tcp/127.0.0.1/${stage.port} && echo connected) 2>/dev/null; echo rc=$?`,
    judge: (result, stage) =>
      stage.connections() > 0 || result.stdout.includes('connected')
        ? { held: false, detail: 'the host listener was reached' }
        : { held: true, detail: 'no connection reached the host' }
  }
]
