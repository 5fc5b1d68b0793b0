export { ApprovalsView } from './components/view-approvals'
export { ApprovalsAttention, PendingApprovalsCount } from './components/approvals-attention'
