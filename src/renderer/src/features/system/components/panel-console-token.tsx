import { useShallow } from 'zustand/react/shallow'
import { Button, ErrorBanner } from '../../../ui'
import { useSystemStore } from '../store/system-store'

/**
 * The web console's token (Settings): kept in the home across restarts; a new one ends every open
 * console session, and this tab reopens with it. The desktop app has none, so it shows nothing.
 */
export function PanelConsoleToken() {
  const { transport, rotating, rotateError, rotate } = useSystemStore(
    useShallow((state) => ({
      transport: state.info?.transport,
      rotating: state.rotating === true,
      rotateError: state.rotateError,
      rotate: state.rotateConsoleToken
    }))
  )
  if (transport !== 'websocket') return null
  return (
    <div className="set-row" data-testid="setting-console-token">
      <div className="set-text">
        <h3 className="set-title">Console token</h3>
        <p className="set-description">
          The web console’s credential, kept in <code>console-token</code> in the home so tabs and bookmarks survive restarts. Make a new one if the URL may
          have leaked: every other open console must then open the new URL (<code>airlock serve</code> prints it), and this tab reopens with it.
        </p>
        {rotateError && <ErrorBanner message={rotateError} />}
      </div>
      <div className="set-editor">
        <Button variant="danger" busy={rotating} onClick={() => void rotate()} data-testid="setting-console-token-rotate">
          {rotating ? 'Making a new token…' : 'Make a new token'}
        </Button>
      </div>
    </div>
  )
}
