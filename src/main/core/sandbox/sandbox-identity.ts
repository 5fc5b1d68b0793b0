/**
 * Which host uid sandboxed code runs as (SPEC §4: "sandboxed code never runs as a host-privileged
 * uid"). When Airlock runs as an ordinary user, sandboxes run as that user: they hold nothing the
 * operator does not already hold. When Airlock runs as root (CI, servers), sandboxes run as a
 * dedicated unprivileged uid/gid that owns nothing on the host but the workspaces Airlock gives it,
 * so a file made inside (a setuid binary, a planted config) is never root's.
 */

/** The uid and gid given to sandboxed code when Airlock runs as root. Outside the ranges distributions
 * hand to people (1000–60000), to system services (< 1000) and to systemd's dynamic users (61184–65519). */
export const dedicatedSandboxUid = 60_777

/** The host identity of sandboxed code, and whether it is the dedicated one (Airlock runs as root). */
export type SandboxIdentity = { uid: number; gid: number; dedicated: boolean }

/** The identity sandboxes run as on this host (see the module comment). */
export function sandboxIdentity(): SandboxIdentity {
  const uid = process.getuid?.() ?? -1
  const gid = process.getgid?.() ?? -1
  if (uid !== 0) return { uid, gid, dedicated: false }
  return { uid: dedicatedSandboxUid, gid: dedicatedSandboxUid, dedicated: true }
}
