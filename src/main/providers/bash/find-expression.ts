import { CommandRefusedError } from './command-line'

/** The arguments of find that name paths: its starting points and the files some tests compare with. */
export type FindPaths = { startingPoints: string[]; pathValues: string[] }

type Primary = 'none' | 'text' | 'path'

const none =
  '( ) ! , -not -a -and -o -or -print -print0 -ls -prune -quit -true -false -empty -readable -writable -executable -nouser -nogroup -depth -d -mount -xdev -noleaf -ignore_readdir_race -noignore_readdir_race -daystart -warn -nowarn -help --help -version --version'
const text =
  '-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -perm -size -user -group -uid -gid -mtime -mmin -atime -amin -ctime -cmin -links -inum -maxdepth -mindepth -used -printf -fstype -regextype -context'
const path = '-newer -anewer -cnewer -samefile'

/** findutils 4.9 primaries the host runner accepts, and what argument each takes. */
const primaries = new Map<string, Primary>([
  ...none.split(' ').map((name) => [name, 'none'] as const),
  ...text.split(' ').map((name) => [name, 'text'] as const),
  ...path.split(' ').map((name) => [name, 'path'] as const)
])

const runs = 'runs a program'
/** Primaries known and refused, with the reason. */
const refusedPrimaries: Record<string, string> = {
  '-exec': runs,
  '-execdir': runs,
  '-ok': runs,
  '-okdir': runs,
  '-delete': 'deletes files',
  '-fprint': 'writes a file',
  '-fprint0': 'writes a file',
  '-fprintf': 'writes a file',
  '-fls': 'writes a file',
  '-follow': 'follows symbolic links, which can lead out of the workspace',
  '-files0-from': 'reads starting points from a file, which the path checks do not cover; pass them as arguments'
}

/** Leading options: -P (the default) and -H (links named on the command line, which are checked anyway). */
const leadingOptions = new Set(['-P', '-H'])
const refusedLeading: Record<string, string> = { '-L': refusedPrimaries['-follow']! }

/**
 * Parses find's own grammar: leading options, then starting points up to the first argument
 * that starts an expression (`-x`, `(`, `)`, `!`, `,`), then the expression, each primary with
 * the number of arguments it takes. Unknown primaries are refused.
 */
export function parseFind(args: readonly string[]): FindPaths {
  const found: FindPaths = { startingPoints: [], pathValues: [] }
  let index = 0
  for (; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '--') {
      index++
      break
    }
    const reason = refusedLeading[arg] ?? refusedPrimaries[arg]
    if (reason) throw new CommandRefusedError(`find ${arg} is not allowed on the host runner: ${reason}`)
    if (!leadingOptions.has(arg)) break
  }
  for (; index < args.length && !startsExpression(args[index]!); index++) found.startingPoints.push(args[index]!)
  for (; index < args.length; index++) {
    const arg = args[index]!
    const reason = refusedPrimaries[arg]
    if (reason) throw new CommandRefusedError(`find ${arg} is not allowed on the host runner: ${reason}`)
    const primary = primaries.get(arg) ?? newerPrimary(arg)
    if (primary === undefined) throw new CommandRefusedError(`find ${arg} is not an expression the host runner knows for find (unknown ones are refused)`)
    if (primary === 'none') continue
    const value = args[++index]
    if (value === undefined) throw new CommandRefusedError(`find ${arg} needs an argument`)
    if (primary === 'path') found.pathValues.push(value)
  }
  return found
}

/** As findutils decides: an argument starts the expression when it is `-x...`, `(`, `)`, `!` or `,`. */
function startsExpression(arg: string): boolean {
  return (arg.startsWith('-') && arg.length > 1) || arg === '(' || arg === ')' || arg === '!' || arg === ','
}

/** `-newerXY`: compares with file `ref` (Y one of a, B, c, m) or with a date string (Y = t). */
function newerPrimary(arg: string): Primary | undefined {
  if (arg.length !== 8 || !arg.startsWith('-newer')) return undefined
  const [x, y] = [arg[6]!, arg[7]!]
  if (!'aBcm'.includes(x) || !'aBcmt'.includes(y)) return undefined
  return y === 't' ? 'text' : 'path'
}
