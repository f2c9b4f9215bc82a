// the trap: another `die`, not re-exported by the barrel
export function die(message: string): void {
  console.log(message)
}
