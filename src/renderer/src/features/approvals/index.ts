export { ApprovalsView } from './components/view-approvals'
