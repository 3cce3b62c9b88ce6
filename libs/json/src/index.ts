// JSON that keeps int64 integers exact, shared by libs/cue (CUE exports) and
// libs/kube (request and response bodies).
export { exactNumber, parseExactJson, stringifyExactJson } from './exact-json';
