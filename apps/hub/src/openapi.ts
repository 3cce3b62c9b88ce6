import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** OpenAPI document at /api/docs-json and a browsable UI at /api/docs (both public). */
export function setupOpenApi(app: INestApplication): void {
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Flotilla hub')
      .setDescription('Fleet control plane: clusters, Projects and their Targets. Every route but health and metrics needs a bearer token.')
      .setVersion('v1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('api/docs', app, doc, { jsonDocumentUrl: 'api/docs-json' });
}
