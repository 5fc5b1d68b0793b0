import { AgentsView } from '../features/agents'
import { ApprovalsAttention, ApprovalsView, PendingApprovalsCount } from '../features/approvals'
import { HistoryView } from '../features/history'
import { ProvidersView } from '../features/providers'
import { ResourcesView } from '../features/resources'
import { SettingsView } from '../features/settings'
import { SystemFooter } from '../features/system'
import { useConnection } from '../lib/connection'
import { ThemeToggle } from '../ui'
import { useView } from './use-view'
import { views, type ViewId } from './views'

const content: Record<ViewId, () => React.JSX.Element> = {
  agents: AgentsView,
  approvals: ApprovalsView,
  history: HistoryView,
  providers: ProvidersView,
  resources: ResourcesView,
  settings: SettingsView
}

/** The console frame: navigation on the left, the current view on the right. */
export function AppShell() {
  const [view, setView] = useView()
  const connected = useConnection((state) => state.connected)
  const stale = useConnection((state) => state.stale)
  const View = content[view]
  return (
    <div className="shell">
      <ApprovalsAttention />
      <nav className="sidebar" aria-label="Views">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Airlock
        </div>
        <ul>
          {views.map((item) => (
            <li key={item.id}>
              <a
                href={`#/${item.id}`}
                data-testid={`nav-${item.id}`}
                className={item.id === view ? 'nav-item active' : 'nav-item'}
                aria-current={item.id === view ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault()
                  setView(item.id)
                }}
              >
                <item.icon size={16} aria-hidden="true" />
                <span className="nav-title">{item.title}</span>
                {item.id === 'approvals' && <PendingApprovalsCount />}
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-bottom">
          <ThemeToggle />
          <SystemFooter />
        </div>
      </nav>
      <main className={`content content-${view}`} data-testid={`view-${view}`}>
        {!connected && (
          <div className="banner banner-error banner-sticky" role="alert" data-testid="banner-disconnected">
            {stale
              ? 'Airlock runs with a new console token, so this tab’s session ended: open the URL that `airlock serve` printed (or the desktop app).'
              : 'Lost the connection to Airlock. Reconnecting…'}
          </div>
        )}
        <View />
      </main>
    </div>
  )
}
