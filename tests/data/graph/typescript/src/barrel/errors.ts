export function die(code: number): never {
  throw new Error(String(code))
}
