import type { ResourceHandleView } from '@shared/resources'
import { ConfirmDialog } from '../../../ui'

/**
 * Asks before the operator's release: it ends the resource whatever its reference count, so the
 * dialog says what is torn down and who loses it.
 */
export function DialogReleaseConfirm(props: { handle?: ResourceHandleView; onCancel(): void; onConfirm(handle: ResourceHandleView): void }) {
  const handle = props.handle
  return (
    <ConfirmDialog
      open={handle !== undefined}
      onOpenChange={(open) => !open && props.onCancel()}
      title={handle ? `Release this ${handle.kind}?` : 'Release'}
      confirmLabel="Release now"
      danger
      testId="dialog-release-confirm"
      onConfirm={() => handle && props.onConfirm(handle)}
    >
      {handle && (
        <>
          <p>
            The <code>{handle.providerId}</code> provider ends this {handle.kind} ({handle.scope}
            {handle.ownerId ? ` ${handle.ownerId}` : ''}, handle <code>#{handle.handleId.slice(0, 8)}</code>) now, the way it ends its own: a sandbox or
            container is stopped and removed, a connection or browser is closed.
          </p>
          <p>
            {handle.refCount > 1
              ? `${handle.refCount} holders still reference it; every one loses it, whatever the count.`
              : handle.refCount === 1
                ? 'One holder still references it and loses it.'
                : 'Nothing references it any more.'}{' '}
            A call in flight on it fails; the next call that needs one gets a fresh resource.
          </p>
        </>
      )}
    </ConfirmDialog>
  )
}
