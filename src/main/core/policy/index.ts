// The policy engine (SPEC §6.3): command analysis and rules, classification and taint, output redaction.
export type {
  AnalysisConcern,
  CommandAnalysis,
  CommandDecision,
  CommandFeed,
  CommandPolicyInput,
  CommandRedirect,
  CommandWord,
  CommandWrapper,
  SimpleCommand
} from './command-analysis'
export { decideCommandLine } from './command-rules'
export { loadCommandAnalyzer, type CommandAnalyzer } from './shell'
export { ClassificationLabelSet } from './classification'
export { PolicyEngine, type PolicyEngineOptions, type TaintLedger } from './policy-engine'
export { installOutputRedaction, redactOutputText } from './output-redaction'
