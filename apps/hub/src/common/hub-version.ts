// The hub's release: Flotilla's, as the agents report theirs.
export { FLOTILLA_RELEASE as HUB_VERSION } from '@flotilla/release';
