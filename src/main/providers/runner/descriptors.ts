/**
 * A bash snippet that closes every descriptor above `keep` (bash: dash cannot name descriptors
 * above 9). Whatever the Airlock process holds without close-on-exec, or inherited from its
 * parent, must never reach a program it runs for an agent: a descriptor outlives every uid,
 * namespace and path check.
 */
export function closeDescriptorsAbove(keep: number): string {
  // No redirection on the loop: bash would park the redirected descriptor above 9 and lose it here.
  return `for f in /proc/self/fd/*; do n=\${f##*/}; [ "$n" -gt ${keep} ] && eval "exec $n>&-"; done`
}
