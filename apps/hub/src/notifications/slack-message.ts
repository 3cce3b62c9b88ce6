// The body a chat webhook receives for a rollout wave's change: Slack's
// incoming-webhook shape ({ text }), which Mattermost, Rocket.Chat, Teams'
// Slack-compatible connectors and most chat tools accept too. Plain words on
// two lines, and a third with the Project's page when the hub knows its public
// address (FLOTILLA_PUBLIC_URL): a bare URL, which every such tool links.
import type { RolloutWave } from '@flotilla/cdevents';
import { countsPhrase, stateWords } from '../rollout/wave-event';

export interface SlackMessage {
  text: string;
}

/** Slack reads `&`, `<` and `>` as markup: the three it asks senders to escape. */
function escaped(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The message for `wave` of Project `project` on `revision`; `page`, the Project's view on the status page. */
export function slackMessage(project: string, revision: string, wave: RolloutWave, page?: string): SlackMessage {
  const groups = wave.groups.length > 0 ? wave.groups.join(', ') : 'unlisted groups';
  const line1 = `Flotilla project ${project}: wave ${wave.index} (${groups}) is ${stateWords(wave.state)} (was ${stateWords(wave.previous)})`;
  const line2 = `revision ${revision}: ${countsPhrase(wave)}`;
  return { text: escaped([line1, line2, ...(page ? [page] : [])].join('\n')) };
}
