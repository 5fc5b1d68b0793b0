// `persist_skill` (SPEC §5.3, §6.4): built per host with the port its revisions are recorded through.
export { createPersistSkillAction, persistSkillInputSchema, type PersistSkillData } from './persist-skill-action'
