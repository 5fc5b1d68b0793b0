import { resolveAll } from './command-rules-folders'
import { gitSubcommand } from './command-rules-git'
import { baseName, hasFlag, isLong, resolvePath, shortValues, splitArgs, type CommandView, type Folder } from './command-rules-words'
import { protectedName, type ProtectedKind } from './protected-names'

/**
 * What a simple command writes and deletes, read from its words the way each program reads its
 * arguments: the files a redirection, `cp`/`mv`/`tee`/`touch`/`ln`/`sed -i`/`truncate`/`install`,
 * `dd of=`, `rsync`, `tar -x -C`, `unzip -d`, `patch`, `awk -i inplace` and a downloader
 * (`curl -o`, `-O`, `wget`'s default name) write, and the paths `rm`/`rmdir`/`unlink`/`shred`,
 * `find -delete`, `git clean -f`, `git rm`, `rsync --delete`, `tar --remove-files` and `zip -m`
 * delete. Used for the raw-device family and the `deletion`, `vcs_write` and `config_write` flags.
 */

/** Words that stand for paths only known at run time (`xargs` input, `find -exec`'s `{}`, what a patch names). */
export const unknownTarget = '$(stdin)'

const valuedBy: Record<string, ReadonlySet<string>> = {
  cp: new Set(['-t', '-S']),
  mv: new Set(['-t', '-S']),
  ln: new Set(['-t', '-S']),
  install: new Set(['-t', '-S', '-m', '-o', '-g']),
  touch: new Set(['-r', '-d', '-t']),
  truncate: new Set(['-s', '-r']),
  sed: new Set(['-e', '-f', '--expression', '--file', '-l']),
  awk: new Set(['-f', '-v', '-F', '-i', '-l']),
  gawk: new Set(['-f', '-v', '-F', '-i', '-l']),
  rsync: new Set([
    '-e',
    '--rsh',
    '-f',
    '--filter',
    '--exclude',
    '--include',
    '--exclude-from',
    '--include-from',
    '--files-from',
    '-T',
    '--temp-dir',
    '--partial-dir',
    '--backup-dir',
    '--suffix'
  ]),
  zip: new Set(['-x', '-i', '-b', '-t', '-tt', '-n', '-P', '-Z'])
}

/** `https://x/a/i.sh?x=1` → `i.sh`: the file name `curl -O` and `wget` save a URL under. */
const remoteName = (url: string) => baseName(url.replace(/[?#].*$/, '').replace(/^[a-z]+:\/\/[^/]*\/?/i, '')) || 'index.html'
const isUrl = (word: string) => /^(?:https?|ftps?):\/\//i.test(word)

const written = new WeakMap<CommandView, string[]>()

/** Files a command writes: write redirections and the destinations of file-writing programs. */
export function writeTargets(view: CommandView): string[] {
  let targets = written.get(view)
  if (!targets) written.set(view, (targets = findWriteTargets(view)))
  return targets
}

function findWriteTargets(view: CommandView): string[] {
  const targets: string[] = []
  for (const redirect of view.command.redirects) {
    const value = redirect.target.value
    if (redirect.writes && value !== '-' && !/^\d+$/.test(value)) targets.push(value)
  }
  const { program, args } = view
  const { options, operands, values } = splitArgs(args, valuedBy[program])
  const optionValue = (short: string, long: string) =>
    values.get(short) ?? values.get(long) ?? options.find((o) => o.startsWith(`${long}=`))?.slice(long.length + 1)
  switch (program) {
    case 'tee':
    case 'touch':
    case 'truncate':
    case 'shred':
      targets.push(...operands)
      break
    case 'cp':
    case 'mv':
    case 'ln':
    case 'install':
    case 'rsync': {
      const directory = optionValue('-t', '--target-directory')
      if (program === 'install' && hasFlag(options, 'd', '--directory')) targets.push(...operands)
      else if (directory !== undefined) targets.push(directory, ...operands.map((source) => `${directory}/${baseName(source)}`))
      else if (operands.length === 1 && program === 'ln') targets.push(baseName(operands[0]!))
      else if (operands.length >= 2) {
        const destination = operands[operands.length - 1]!
        targets.push(destination, ...operands.slice(0, -1).map((source) => `${destination}/${baseName(source)}`))
      }
      break
    }
    case 'sed':
      if (options.some((o) => isLong(o, '--in-place') || /^-[Enrsuz]*i/.test(o))) {
        const scriptGiven =
          values.has('-e') ||
          values.has('-f') ||
          values.has('--expression') ||
          values.has('--file') ||
          options.some((o) => o.startsWith('--expression=') || o.startsWith('--file='))
        targets.push(...(scriptGiven ? operands : operands.slice(1)))
      }
      break
    case 'awk':
    case 'gawk':
      if (values.get('-i') === 'inplace' || options.includes('--include=inplace')) targets.push(...(values.has('-f') ? operands : operands.slice(1)))
      break
    case 'perl':
      // `perl -pi -e CODE files`: the first operand is the code (or the script file), the rest are edited.
      if (options.some((o) => /^-[a-zA-Z]*i/.test(o))) targets.push(...operands.slice(1))
      break
    case 'dd':
      for (const arg of args) if (arg.startsWith('of=')) targets.push(arg.slice(3))
      break
    case 'tar':
    case 'bsdtar': {
      // Extraction writes what the archive names, into the folder `-C` / `--directory` gives.
      const extracts = /^-?[a-zA-Z]*x/.test(args[0] ?? '') || options.some((o) => isLong(o, '--extract') || isLong(o, '--get'))
      const longDir = args.flatMap((a, i) =>
        a === '--directory' ? [args[i + 1] ?? ''] : isLong(a, '--directory') && a.includes('=') ? [a.slice(a.indexOf('=') + 1)] : []
      )
      if (extracts) targets.push(...[...shortValues(args, 'C').map((v) => v.value), ...longDir].map((dir) => `${dir}/${unknownTarget}`))
      break
    }
    case 'unzip':
      targets.push(...shortValues(args, 'd').map((v) => `${v.value}/${unknownTarget}`))
      break
    case 'patch': {
      // Without a file operand or `-o`, patch writes whatever files the patch names: unknown here.
      const output = shortValues(args, 'o').map((v) => v.value)
      targets.push(...(output.length > 0 ? output : operands.length > 0 ? operands.slice(0, 1) : [unknownTarget]))
      break
    }
    case 'curl': {
      targets.push(
        ...shortValues(args, 'ACDEHKPQTUXYbcdehmortuwxyz')
          .filter((v) => v.letter === 'o')
          .map((v) => v.value)
      )
      for (let i = 0; i < args.length; i++)
        if (isLong(args[i]!, '--output') && args[i]!.length >= 6)
          targets.push(args[i]!.includes('=') ? args[i]!.slice(args[i]!.indexOf('=') + 1) : (args[++i] ?? ''))
      const remote =
        options.some((o) => /^-[a-zA-Z]*O/.test(o) && !/^-[a-zA-Z]*[ACDEHKPQTUXYbcdehmortuwxyz][a-zA-Z]*O/.test(o)) ||
        options.some((o) => o.startsWith('--remote-name'))
      if (remote) targets.push(...operands.filter(isUrl).map(remoteName))
      break
    }
    case 'wget': {
      const named = [
        ...shortValues(args, 'OoaeiBtTwQPUDIXRAl')
          .filter((v) => v.letter === 'O')
          .map((v) => v.value),
        ...options.filter((o) => o.startsWith('--output-document=')).map((o) => o.slice(18))
      ]
      const prefix = shortValues(args, 'OoaeiBtTwQPUDIXRAl').find((v) => v.letter === 'P')?.value
      targets.push(...(named.length > 0 ? named : operands.filter(isUrl).map((url) => (prefix ? `${prefix}/${remoteName(url)}` : remoteName(url)))))
      break
    }
  }
  return targets.filter((t) => t !== '')
}

/** Paths a command deletes, or undefined when it deletes nothing. `$(stdin)` stands for unknown paths. */
export function deletionTargets(view: CommandView): string[] | undefined {
  const { program, args, command } = view
  const fromStdin = command.argsFromStdin ? [unknownTarget] : []
  const { options, operands } = splitArgs(args, valuedBy[program])
  if (program === 'rm' || program === 'rmdir' || program === 'unlink' || program === 'shred') {
    const targets = [...operands.map((o) => (o.includes('{}') ? unknownTarget : o)), ...fromStdin]
    return targets.length > 0 ? targets : undefined
  }
  if (program === 'find' && args.includes('-delete')) return findPaths(args)
  if (program === 'rsync' && options.some((o) => o.startsWith('--del') || isLong(o, '--delete')) && operands.length >= 2) return operands.slice(-1)
  if (program === 'rsync' && options.some((o) => isLong(o, '--remove-source-files') && o.length >= 5)) return operands.slice(0, -1)
  if ((program === 'tar' || program === 'bsdtar') && options.some((o) => isLong(o, '--remove-files') && o.length >= 5))
    return operands.length > 0 ? operands : [unknownTarget]
  if (program === 'zip' && options.some((o) => /^-[a-zA-Z]*m/.test(o) || isLong(o, '--move'))) return operands.length > 1 ? operands.slice(1) : [unknownTarget]
  const git = gitSubcommand(view)
  if (git?.name === 'clean' && hasFlag(splitArgs(git.args).options, 'f', '--force')) {
    const paths = splitArgs(git.args).operands
    return paths.length > 0 ? paths : ['.']
  }
  if (git?.name === 'rm' && !git.args.includes('--cached')) {
    const paths = [...splitArgs(git.args).operands, ...fromStdin]
    return paths.length > 0 ? paths : undefined
  }
  return undefined
}

/** The paths `mv` moves away (its sources), or [] for another command. */
export function moveSources(view: CommandView): { sources: string[]; destination: string | undefined } {
  if (view.program !== 'mv') return { sources: [], destination: undefined }
  const { options, operands, values } = splitArgs(view.args, valuedBy.mv)
  const directory = values.get('-t') ?? options.find((o) => o.startsWith('--target-directory='))?.slice(19)
  if (directory !== undefined) return { sources: operands, destination: directory }
  return operands.length >= 2 ? { sources: operands.slice(0, -1), destination: operands[operands.length - 1] } : { sources: [], destination: undefined }
}

/** The starting points of `find` (the words before its first expression word; `.` when none). */
export function findPaths(args: readonly string[]): string[] {
  const paths: string[] = []
  for (const arg of args) {
    if (arg.startsWith('-') || arg === '(' || arg === '!') break
    paths.push(arg)
  }
  return paths.length > 0 ? paths : ['.']
}

/**
 * True when `value` is inside the workspace's `scratch/` folder for every working folder the
 * command may run in.
 */
export function insideScratch(value: string, folders: readonly Folder[]): boolean {
  return folders.every((folder) => {
    const path = resolvePath(value, folder)
    return path.anchor === 'workspace' && path.segments[0] === 'scratch'
  })
}

/** Which protected kind of file a written path is (`./protected-names.ts`), from the word and every folder. */
export function protectedKind(value: string, folders: readonly Folder[]): ProtectedKind | undefined {
  const readings = [
    value.split('/').filter((s) => s !== '' && s !== '.'),
    ...resolveAll(value, folders)
      .filter((p) => p.anchor !== 'unknown')
      .map((p) => p.segments)
  ]
  const hits = readings.map(protectedName).filter((hit) => hit !== undefined)
  return hits.find((hit) => hit.kind === 'vcs_write')?.kind ?? hits[0]?.kind
}
