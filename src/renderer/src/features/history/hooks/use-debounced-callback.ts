import { useEffect, useMemo, useRef } from 'react'

/** A stable function that calls `callback` once `delayMs` have passed without another call (pending calls are dropped on unmount). */
export function useDebouncedCallback<A extends unknown[]>(callback: (...args: A) => void, delayMs: number): (...args: A) => void {
  const latest = useRef(callback)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => {
    latest.current = callback
  }, [callback])
  useEffect(() => () => clearTimeout(timer.current), [])
  return useMemo(
    () =>
      (...args: A) => {
        clearTimeout(timer.current)
        timer.current = setTimeout(() => latest.current(...args), delayMs)
      },
    [delayMs]
  )
}
