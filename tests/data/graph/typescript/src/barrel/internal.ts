// A barrel: the package's modules re-exported from one place
export * from "./errors"
export { getScope as currentScope } from "./scope"
