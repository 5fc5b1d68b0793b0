export { ProvidersView } from './components/view-providers'
