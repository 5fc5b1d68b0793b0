import { baseName, firstOperand, hasFlag, resolvePath, splitArgs, type CommandView } from './command-rules-words'

/**
 * What a simple command writes and deletes, read from its words the way each program reads its
 * arguments: the files a redirection, `cp`/`mv`/`tee`/`touch`/`ln`/`sed -i`/`truncate`/`install`,
 * `dd of=` and a downloader's `-o` write, and the paths `rm`/`rmdir`/`unlink`/`shred`,
 * `find -delete`, `git clean -f` and `git rm` delete. Used for the raw-device denylist family and
 * for the `deletion`, `vcs_write` and `config_write` risk flags.
 */

/** Words that stand for paths only known at run time (`xargs` input, `find -exec`'s `{}`). */
export const unknownTarget = '$(stdin)'

const valuedBy: Record<string, ReadonlySet<string>> = {
  cp: new Set(['-t', '-S']),
  mv: new Set(['-t', '-S']),
  ln: new Set(['-t', '-S']),
  install: new Set(['-t', '-S', '-m', '-o', '-g']),
  touch: new Set(['-r', '-d', '-t']),
  truncate: new Set(['-s', '-r']),
  sed: new Set(['-e', '-f', '--expression', '--file', '-l']),
  git: new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env'])
}

/** Git's subcommand and the arguments after it, skipping global options (`git -C dir push`). */
export function gitSubcommand(view: CommandView): { name: string; args: string[] } | undefined {
  if (view.program !== 'git') return undefined
  const sub = firstOperand(view.args, valuedBy.git)
  return sub ? { name: sub.value, args: view.args.slice(sub.index + 1) } : undefined
}

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
  const optionValue = (short: string, long: string) => values.get(short) ?? values.get(long) ?? options.find((o) => o.startsWith(`${long}=`))?.slice(long.length + 1)
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
    case 'install': {
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
      if (options.some((o) => o === '--in-place' || o.startsWith('--in-place=') || /^-[Enrsuz]*i/.test(o))) {
        const scriptGiven = values.has('-e') || values.has('-f') || values.has('--expression') || values.has('--file') || options.some((o) => o.startsWith('--expression=') || o.startsWith('--file='))
        targets.push(...(scriptGiven ? operands : operands.slice(1)))
      }
      break
    case 'perl':
      // `perl -pi -e CODE files`: the first operand is the code (or the script file), the rest are edited.
      if (options.some((o) => /^-[a-zA-Z]*i/.test(o))) targets.push(...operands.slice(1))
      break
    case 'dd':
      for (const arg of args) if (arg.startsWith('of=')) targets.push(arg.slice(3))
      break
    case 'curl':
    case 'wget': {
      const flag = program === 'curl' ? ['-o', '--output'] : ['-O', '--output-document']
      for (let i = 0; i < args.length; i++) {
        if (flag.includes(args[i]!) && i + 1 < args.length) targets.push(args[i + 1]!)
        else if (args[i]!.startsWith(`${flag[1]}=`)) targets.push(args[i]!.slice(flag[1]!.length + 1))
      }
      break
    }
  }
  return targets
}

/** Paths a command deletes, or undefined when it deletes nothing. `$(stdin)` stands for unknown paths. */
export function deletionTargets(view: CommandView): string[] | undefined {
  const { program, args, command } = view
  const fromStdin = command.argsFromStdin ? [unknownTarget] : []
  if (program === 'rm' || program === 'rmdir' || program === 'unlink' || program === 'shred') {
    const { operands } = splitArgs(args)
    const targets = [...operands.map((o) => (o === '{}' ? unknownTarget : o)), ...fromStdin]
    return targets.length > 0 ? targets : undefined
  }
  if (program === 'find' && args.includes('-delete')) return findPaths(args)
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
 * command may run in (`cwds`: segments relative to the workspace root, null when unknown).
 */
export function insideScratch(value: string, cwds: readonly (readonly string[] | null)[]): boolean {
  return cwds.every((cwd) => {
    const path = resolvePath(value, cwd)
    return path.anchor === 'workspace' && path.segments[0] === 'scratch'
  })
}

const configNames = new Set(['package.json', '.bashrc', '.zshrc', '.profile', '.bash_profile', '.bash_login', '.zprofile', '.zshenv', '.npmrc', '.pypirc', '.gitconfig', '.yarnrc', '.yarnrc.yml'])

/** Which protected kind of file a written path is: `vcs_write` (.git/, .github/) or `config_write`. */
export function protectedKind(value: string, cwds: readonly (readonly string[] | null)[]): 'vcs_write' | 'config_write' | undefined {
  const readings = [value.split('/').filter((s) => s !== '' && s !== '.')]
  for (const cwd of cwds) {
    const path = resolvePath(value, cwd)
    if (path.anchor !== 'unknown') readings.push(path.segments)
  }
  for (const segments of readings) {
    if (segments.some((s) => s === '.git' || s === '.github')) return 'vcs_write'
  }
  for (const segments of readings) {
    const name = segments[segments.length - 1] ?? ''
    if (configNames.has(name) || /^\.env(\..*)?$/.test(name)) return 'config_write'
  }
  return undefined
}
