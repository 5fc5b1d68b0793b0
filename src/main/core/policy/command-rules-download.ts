import { writeTargets } from './command-rules-targets'
import { firstOperand, hasFlag, resolvePath, shown, splitArgs, workspaceRoot, type CommandView } from './command-rules-words'

/**
 * The download-and-execute family (`deny.download_execute`): code fetched from the network reaches a
 * shell or interpreter as its script — through a pipe (`curl | sh`, `wget -O- | bash`), a process
 * substitution (`bash <(curl ...)`), a substitution (`sh -c "$(curl ...)"`, `eval "$(wget ...)"`),
 * any chain of commands in between (`curl | base64 -d | sh`), or a file a downloader just wrote and
 * the line then runs (`curl -o x.sh ... && sh x.sh`, `curl -fsSLo x`, `curl -O URL`, `wget URL`,
 * `curl URL | tee x`, `> x`; run as `sh x`, `. x`, `./x`, `python x`, `sh < x`), or a socket bash
 * opens itself (`sh < /dev/tcp/host/port`). Which commands fetch is a list: network clients, any
 * command reading a `/dev/tcp` or `/dev/udp` redirection, and interpreters given inline code that
 * opens a connection (`python -c 'import urllib...'`).
 */

/** Programs whose output is whatever a remote end sends. */
export const downloaders = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'axel',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'http',
  'https',
  'xh',
  'curlie',
  'lwp-download',
  'lwp-request',
  'GET',
  'tftp',
  'ftp',
  'telnet',
  'ssh',
  'scp',
  'sftp',
  'openssl'
])

const shells = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox'])
const evaluators = new Set(['eval', 'source', '.'])
const interpreter = /^(?:python[\d.]*|perl|ruby|node|nodejs|php|deno|bun|lua|tclsh)$/
/** Options that give an interpreter its code inline. */
const codeFlags = new Set(['-c', '-e', '-E', '-r', '--eval', '-p', '--print'])
/** Inline code that opens a network connection. */
const networkCode =
  /urllib|urlopen|requests|http\.client|httpx|aiohttp|socket|LWP|HTTP::Tiny|IO::Socket|open-uri|Net::HTTP|fetch\(|https?:\/\/|ftp:\/\/|file_get_contents|curl_exec/
/** A substitution in a code word that starts with a downloader (`$(curl ...)`); linear time on any input. */
const fetchedText = new RegExp(`(?:\\$\\(|\`|<\\()[ \\t]*(?:[\\w.-]*/)*(?:${[...downloaders].join('|')})\\b`)

/** Inline code an interpreter was given (`python3 -c CODE`), if any. */
function inlineCode(view: CommandView): string | undefined {
  if (!interpreter.test(view.program)) return undefined
  for (let i = 0; i < view.args.length - 1; i++) if (codeFlags.has(view.args[i]!)) return view.args[i + 1]
  return undefined
}

/** True when a path word is one of bash's network pseudo-files (`/dev/tcp/host/port`, `/dev/udp/...`). */
export function isSocketPath(value: string): boolean {
  const path = resolvePath(value, null)
  return path.anchor === 'root' && path.segments[0] === 'dev' && (path.segments[1] === 'tcp' || path.segments[1] === 'udp')
}

/** True when a command's output is data from the network. */
export function isDownloader(view: CommandView): boolean {
  if (downloaders.has(view.program)) return true
  if (view.command.redirects.some((r) => !r.writes && /^<>?$/.test(r.op) && isSocketPath(r.target.value))) return true
  const code = inlineCode(view)
  return code !== undefined && networkCode.test(code)
}

const isExecutor = (program: string) => shells.has(program) || evaluators.has(program) || interpreter.test(program)

/** True when a shell or interpreter takes its script from stdin (`sh`, `bash -s`, `python3 -`). */
function readsCodeFromStdin(view: CommandView): boolean {
  const { options, operands } = splitArgs(view.args)
  if (shells.has(view.program)) return !hasFlag(options, 'c') && (operands.length === 0 || hasFlag(options, 's'))
  if (interpreter.test(view.program)) return inlineCode(view) === undefined && !options.includes('-m') && (operands.length === 0 || operands[0] === '-')
  return false
}

/** The word an executor runs as code: `sh -c CODE`, `python3 -c CODE`, `eval CODE`, `bash FILE`. */
function codeWord(view: CommandView): string | undefined {
  if (evaluators.has(view.program)) return view.args.join(' ')
  return inlineCode(view) ?? firstOperand(view.args)?.value
}

const taintCache = new WeakMap<readonly CommandView[], boolean[]>()

/** Which commands carry downloaded data: downloaders, and whatever they feed, transitively. */
function tainted(all: readonly CommandView[]): boolean[] {
  const cached = taintCache.get(all)
  if (cached) return cached
  const marks = all.map(isDownloader)
  for (let changed = true, rounds = 0; changed && rounds <= all.length; rounds++) {
    changed = false
    all.forEach((view, i) => {
      if (!marks[i] && view.command.fedBy.some((feed) => marks[feed.from])) marks[i] = changed = true
    })
  }
  taintCache.set(all, marks)
  return marks
}

const samePath = (a: string, b: string) => {
  const x = resolvePath(a, workspaceRoot)
  const y = resolvePath(b, workspaceRoot)
  return x.anchor !== 'unknown' && x.anchor === y.anchor && x.segments.join('/') === y.segments.join('/')
}

/** The reason `view` runs downloaded code, or undefined. */
export function downloadExecuteHit(view: CommandView, all: readonly CommandView[]): string | undefined {
  const code = isExecutor(view.program) ? codeWord(view) : undefined
  if (code !== undefined && fetchedText.test(code)) return `${shown(view)} runs the output of a download as code`
  const socket = view.command.redirects.find((r) => !r.writes && isSocketPath(r.target.value))
  if (socket && readsCodeFromStdin(view)) return `${shown(view)} runs a script read from the network socket ${socket.target.value}`
  const marks = tainted(all)
  if (!marks.some(Boolean)) return undefined
  for (const feed of view.command.fedBy) {
    const source = all[feed.from]
    if (!source || !marks[feed.from]) continue
    const runs =
      feed.how === 'script' ||
      (feed.how === 'stdin' && readsCodeFromStdin(view)) ||
      (feed.how === 'argument' && code !== undefined && /\$\(|`|<\(|^\/dev\/fd\//.test(code))
    if (runs) return `${shown(view)} runs code fetched by \`${shown(source)}\``
  }
  // `curl -o x.sh URL && sh x.sh`, `curl URL | tee x.sh; ./x.sh`, `wget URL; sh < i.sh`: a file that
  // carries downloaded data (written by a downloader or by anything it feeds) and is then run.
  const run = [view.command.argv[0]?.value ?? '', ...(code !== undefined ? [code] : [])]
  if (readsCodeFromStdin(view)) run.push(...view.command.redirects.filter((r) => !r.writes && r.op === '<').map((r) => r.target.value))
  const index = all.indexOf(view)
  for (let i = 0; i < index; i++) {
    if (!marks[i]) continue
    const file = writeTargets(all[i]!).find((target) => run.some((word) => samePath(target, word)))
    if (file) return `${shown(view)} runs ${file}, which \`${shown(all[i]!)}\` downloaded`
  }
  return undefined
}
