export { PaneCheckpointChanges } from './components/pane-checkpoint-changes'
export { useCheckpointsStore } from './store/checkpoints-store'
