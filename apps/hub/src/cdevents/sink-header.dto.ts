import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

/** An HTTP token that is none of the headers the CloudEvents binding writes itself. */
export const SINK_HEADER_NAME = /^(?!(?:content-type|content-length|host|transfer-encoding|connection|ce-[!#$%&'*+.^_`|~0-9a-z-]*)$)[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/i;
// visible ASCII and spaces/tabs only: no CR or LF that could split the request
export const SINK_HEADER_VALUE = /^[\t\x20-\x7e]{1,4096}$/;

/** A secret header sent with every CDEvent to the Project's sink (e.g. `Authorization: Bearer …`); sealed, never returned. */
export class SinkHeaderDto {
  @ApiProperty({ example: 'Authorization', pattern: SINK_HEADER_NAME.source, maxLength: 64 })
  @IsString({ message: 'must be a string' })
  @Matches(SINK_HEADER_NAME, { message: 'must be an HTTP header name, not one the CloudEvents binding sets (content-type, ce-*, …)' })
  name!: string;

  @ApiProperty({ example: 'Bearer s3cret', maxLength: 4096, pattern: SINK_HEADER_VALUE.source, description: 'never returned' })
  @IsString({ message: 'must be a string' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  @Matches(SINK_HEADER_VALUE, { message: 'must be 1 to 4096 visible ASCII characters (no line breaks)' })
  value!: string;
}
