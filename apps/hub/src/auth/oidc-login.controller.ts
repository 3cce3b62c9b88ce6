import { Controller, Get, Header, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { type CookieSet, FLOW_COOKIE, HANDOFF_COOKIE, OidcLoginService } from './oidc-login.service';
import { Public } from './roles';

/**
 * The status page's single sign-on (browser redirects, not the JSON API):
 * /auth/oidc/login sends the browser to the provider, /auth/oidc/callback
 * takes it back, and the page then collects its token with
 * POST /auth/oidc/session. The cookies are HttpOnly, SameSite=Lax and scoped
 * to /auth/oidc, so no script and no other path ever sees them.
 */
@ApiExcludeController()
@Public()
@Controller('auth/oidc')
export class OidcLoginController {
  constructor(
    private readonly login: OidcLoginService,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  @Get('login')
  async start(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const { location, cookie } = await this.login.start(req.headers.host);
    this.setCookies(req, res, [cookie]);
    redirect(res, 302, location);
  }

  @Get('callback')
  async callback(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const query = (req.url ?? '').split('?')[1] ?? '';
    const handoff = await this.login.finish(query, cookiesOf(req).get(FLOW_COOKIE));
    this.setCookies(req, res, [handoff, { name: FLOW_COOKIE, value: '', maxAgeSeconds: 0 }]);
    // the page sees #/sso and collects its token; the hash never reaches a server or a log
    redirect(res, 303, '/#/sso');
  }

  /** The token the callback left, once: the answer also deletes the cookie that carried it. */
  @Post('session')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  collect(@Req() req: IncomingMessage, @Res({ passthrough: true }) res: ServerResponse): { token: string } {
    this.setCookies(req, res, [{ name: HANDOFF_COOKIE, value: '', maxAgeSeconds: 0 }]);
    return { token: this.login.collect(cookiesOf(req).get(HANDOFF_COOKIE)) };
  }

  private setCookies(req: IncomingMessage, res: ServerResponse, cookies: CookieSet[]): void {
    const secure = (this.config.oidc?.redirectUrl ?? '').startsWith('https:') || (req.socket as TLSSocket).encrypted === true;
    res.setHeader(
      'set-cookie',
      cookies.map((c) => `${c.name}=${c.value}; Path=/auth/oidc; Max-Age=${c.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`),
    );
  }
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.statusCode = status;
  res.setHeader('location', location);
  res.setHeader('cache-control', 'no-store');
  res.setHeader('referrer-policy', 'no-referrer');
  res.end();
}

/** The request's cookies by name (plain splitting; bounded by the header size Node accepts). */
function cookiesOf(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}
