// The CLI's release: Flotilla's, as the hub and agents report theirs.
export { FLOTILLA_RELEASE as VERSION } from '@flotilla/release';
