import { AGENT_PROTOCOL_LIMITS } from '@flotilla/agent-protocol';
import type { ServerOptions } from '@grpc/grpc-js';

/** The agents' gRPC server settings; bench:agents measures its transport floor with the same. */
export const AGENT_SERVER_OPTIONS: ServerOptions = {
  'grpc.max_receive_message_length': AGENT_PROTOCOL_LIMITS.maxMessageBytes,
  'grpc.max_send_message_length': AGENT_PROTOCOL_LIMITS.maxMessageBytes,
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_permit_without_calls': 1,
  // channelz keeps a trace and call counters per connection: memory and CPU per agent nobody reads here
  'grpc.enable_channelz': 0,
};
