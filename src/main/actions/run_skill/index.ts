// `run_skill` (SPEC §5.3, §6.4): built per host with the port its revisions are read through.
export { createRunSkillAction, runSkillInputSchema } from './run-skill-action'
