import type { PlantedCommandView } from '@shared/approvals'
import { Badge, TextAgent } from '../../../ui'
import { BadgesRisk } from './badges-risk'
import { ListCommands } from './list-commands'

/** What the command rules would do with a planted line typed as a command, as a badge (nothing when it would just run). */
export function BadgeVerdict({ entry }: { entry: PlantedCommandView }) {
  if (entry.verdict === 'run') return null
  const rule = entry.rule ? ` (${entry.rule})` : ''
  return (
    <Badge
      tone={entry.verdict === 'blocked' ? 'bad' : 'warn'}
      title={`Typed as a command, Airlock would ${entry.verdict === 'blocked' ? 'block' : 'ask about'} this line${rule}`}
    >
      {entry.verdict === 'blocked' ? 'blocked if typed' : 'asks if typed'}
    </Badge>
  )
}

/** The planted line the queue row quotes: the riskiest one (stopped or asked first, then flagged), else the first. */
export function riskiestPlanted(planted: readonly PlantedCommandView[]): PlantedCommandView | undefined {
  const rank = (entry: PlantedCommandView) => (entry.verdict === 'blocked' ? 0 : entry.verdict === 'ask' ? 1 : entry.riskFlags.length > 0 ? 2 : 3)
  return [...planted].sort((a, b) => rank(a) - rank(b))[0]
}

/**
 * The command lines a file write plants where something runs them later (package.json scripts,
 * Makefile recipes, hooks, CI steps, editor tasks, shell start-up files): where each sits, the line,
 * the commands the shell parser found in it, the policy's flags, and what would happen if it were
 * typed. The agent's text is drawn with `TextAgent` (hidden characters escaped and marked).
 */
export function ListPlanted({ planted }: { planted: readonly PlantedCommandView[] }) {
  return (
    <ol className="appr-planted" data-testid="approval-planted">
      {planted.map((entry, index) => (
        <li key={index} className="appr-planted-entry">
          <div className="appr-planted-where">
            <span>{entry.where}</span>
            <BadgeVerdict entry={entry} />
            <BadgesRisk flags={entry.riskFlags} />
          </div>
          <pre className="appr-planted-line">
            <TextAgent text={entry.line} multiline />
          </pre>
          {entry.commands.length > 0 && <ListCommands commands={entry.commands} />}
        </li>
      ))}
    </ol>
  )
}
