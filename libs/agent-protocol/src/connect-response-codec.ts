import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { AgentServiceService, ConnectResponse } from './generated/flotilla/agent/v1/agent';

// A digest sends thousands of ConnectResponses in one pass. The generated
// serializer starts each in a new writer, whose buffer grows twice for an
// assignment, then copies the bytes into a Buffer; this one keeps one writer,
// already grown, and wraps the bytes it returns without another copy.
const writer = new BinaryWriter();

/** ConnectResponse's wire bytes, as the generated serializer gives them. */
export function serializeConnectResponse(message: ConnectResponse): Buffer {
  // encoding is synchronous: no other message is ever half-written into the shared writer
  const bytes = ConnectResponse.encode(message, writer).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The agent service as servers register it, with the Connect stream's serializer above. */
export const AGENT_SERVICE_DEFINITION: typeof AgentServiceService = {
  ...AgentServiceService,
  connect: { ...AgentServiceService.connect, responseSerialize: serializeConnectResponse },
};
