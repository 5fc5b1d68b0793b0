// `run_code` (SPEC §5.3): a plain spec (no per-instance state; the session's resource is the manager's).
export { codeTarget, runCodeAction, type RunCodeData, type RunCodeOutput } from './run-code-action'
export { previewCode, type CodePreviewInput } from './code-preview'
