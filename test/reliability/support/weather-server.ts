import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An OpenWeather-compatible server that counts the tool's side effects: every request for a city is one
 * execution of `get_weather`. A city can be made to hang (the request never answers until `release`).
 */
export class WeatherServer {
  readonly hits = new Map<string, number>();
  private readonly hanging = new Set<string>();
  private readonly held: Array<() => void> = [];
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  baseUrl = '';

  async start(host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, host, r));
    this.baseUrl = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  hang(city: string): void {
    this.hanging.add(city);
  }

  /** Answer the held requests and stop hanging. */
  release(): void {
    this.hanging.clear();
    for (const answer of this.held.splice(0)) answer();
  }

  count(city: string): number {
    return this.hits.get(city) ?? 0;
  }

  get total(): number {
    return [...this.hits.values()].reduce((a, b) => a + b, 0);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const city = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '?';
    this.hits.set(city, this.count(city) + 1);
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: city,
          sys: { country: 'KR' },
          weather: [{ description: '맑음' }],
          main: { temp: 20, feels_like: 19, temp_min: 18, temp_max: 22, humidity: 40 },
          wind: { speed: 2 },
        }),
      );
    };
    if (this.hanging.has(city)) this.held.push(answer);
    else answer();
  }
}
