import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A signing key of the issuer: its kid and algorithm, the private half, the public JWK the key set serves. */
export interface IssuerKey {
  kid: string;
  alg: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

export async function newKey(kid: string, alg = 'ES256'): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface SignOptions {
  key?: IssuerKey;
  /** the header's kid (default: the key's) */
  kid?: string;
  /** seconds from now; negative = already expired */
  expiresIn?: number;
  notBefore?: number;
  audience?: string;
  issuer?: string;
}

/**
 * An OIDC issuer on a local port: `/.well-known/openid-configuration` names `/jwks`, which serves the public
 * halves of `published` keys. `down` makes both drop the connection (an unreachable endpoint); `fetches` counts
 * the key set's requests.
 */
export class TokenIssuer {
  published: IssuerKey[] = [];
  down = false;
  fetches = 0;
  audience = 'agents-api';
  private server?: Server;
  private base = '';

  get url(): string {
    return this.base;
  }

  get jwksUrl(): string {
    return `${this.base}/jwks`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (this.down) return req.socket.destroy();
      if (req.url === '/.well-known/openid-configuration') {
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: this.base, jwks_uri: this.jwksUrl }));
      }
      if (req.url === '/jwks') {
        this.fetches++;
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.published.map((k) => k.jwk) }));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A token of `claims`, signed with the first published key unless told otherwise; valid for an hour. */
  async sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
    const key = options.key ?? this.published[0];
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
      .setIssuedAt(now)
      .setIssuer(options.issuer ?? this.base)
      .setAudience(options.audience ?? this.audience)
      .setExpirationTime(now + (options.expiresIn ?? 3600));
    if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
    return jwt.sign(key.privateKey);
  }
}

/** An unsigned token (`alg: none`): header and claims, an empty signature. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}
