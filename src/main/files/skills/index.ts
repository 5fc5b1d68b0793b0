// What persist_skill and run_skill share (SPEC §6.4): the port revisions are recorded through,
// the content hash and SKILL.md format, the no-follow reader of a skill folder and its writer, and
// the facts a skill approval request is made of (the skill service finds its queue item by them).
export {
  assertRunnable,
  parseSkillDocument,
  renderSkillDocument,
  skillContentHash,
  skillDocument,
  skillLimits,
  skillManifest,
  skillsFolder,
  type SkillFile,
  type SkillFrontMatter
} from './skill-content'
export { skillApprovalFacts, skillApprovalRule } from './skill-approval-facts'
export { SkillError, skillActionOutcome, skillRefusalOutcome, type SkillRefusal } from './skill-error'
export { readSkillFolder } from './skill-folder'
export type { SkillLedger, SkillProposal, SkillRevisionRecord } from './skill-port'
export { writeSkillFolder } from './skill-writer'
