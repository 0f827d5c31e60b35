import { connect } from 'node:net';

/**
 * Redis MONITOR on a plain socket: the commands other clients send, each as its arguments.
 * (ioredis's own monitor mode can read another client's command as a reply while MONITOR's `+OK` is
 * still being processed, and then throws "Command queue state error".)
 */
export async function monitorRedis(url: string, keep: (args: string[]) => boolean) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  const commands: string[][] = [];
  let buffered = '';
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (line === '+OK') ready();
      else if (line.startsWith('+')) {
        const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
        if (keep(args)) commands.push(args);
      }
    }
  });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write('MONITOR\r\n');
  await started;
  return { commands, stop: () => socket.destroy() };
}
