import net from 'node:net';

/*
 * The packet relay: a TCP relay between one worker and PostgreSQL that can hold a connection's
 * bytes, the delayed-packet labs' network. It forwards every byte both ways, until it is told to hold: from then on,
 * the next client message whose bytes contain a marker (the write statement's text) and every byte
 * after it on that connection stay here, really unsent, while the worker's other connections (its
 * heartbeat, its commands) flow on. A release sends them on, in order, and forwards again; the
 * server then receives them late, and runs what they ask. Nothing is faked: no result is made up,
 * no statement dropped. A leaf: it imports nothing of the project.
 *
 * It reads the PostgreSQL wire protocol only as far as its framing (a startup message, then
 * [type byte][int32 length][payload]), to tell one message from the next. It relays plain
 * connections: a client that negotiates TLS is relayed but can no longer be held at a statement.
 */

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export type HeldConnection = { id: number; heldBytes: number; heldSince: number };

type Pipe = {
  id: number;
  client: net.Socket;
  server: net.Socket;
  /** Bytes read from the client and not yet split into whole messages. */
  pending: Buffer;
  startupDone: boolean;
  /** Messages (whole or not) held back, in order, once the hold struck this connection. */
  held: Buffer[] | undefined;
  heldSince: number;
  clientEnded: boolean;
};

export class PacketRelay {
  private readonly server: net.Server;
  private readonly pipes = new Set<Pipe>();
  private nextId = 1;
  /** Armed: the next message carrying the marker, on any connection, starts a hold there. */
  private holdAt: Buffer | undefined;
  /** Told once the armed hold strikes, with the bytes it holds then. */
  private onHold: ((held: { bytes: number }) => void) | undefined;
  private closed = false;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.accept(client));
  }

  /** Listens on 127.0.0.1, on a port the system picks, and relays to `target`. */
  static async open(target: { host: string; port: number }): Promise<PacketRelay> {
    const relay = new PacketRelay(target);
    await new Promise<void>((resolve, reject) => {
      relay.server.once('error', reject);
      relay.server.listen(0, '127.0.0.1', () => {
        relay.server.off('error', reject);
        resolve();
      });
    });
    return relay;
  }

  get port(): number {
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('the packet relay is not listening');
    return address.port;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Arms the hold: the next message containing `marker` (and all after it on its connection) is held.
   * `onHold` is told when that happens (the message really stopped here), not when the hold is armed.
   */
  holdNext(marker: string, onHold?: (held: { bytes: number }) => void): void {
    this.holdAt = Buffer.from(marker, 'utf8');
    this.onHold = onHold;
  }

  /** Whether a hold is armed or holding bytes. */
  get holding(): boolean {
    return this.holdAt !== undefined || this.heldConnections().length > 0;
  }

  heldConnections(): HeldConnection[] {
    return [...this.pipes].flatMap((p) =>
      p.held ? [{ id: p.id, heldBytes: p.held.reduce((n, b) => n + b.length, 0), heldSince: p.heldSince }] : [],
    );
  }

  /** Sends every held byte on, in order, disarms the hold, and forwards again. Returns the bytes released. */
  release(): number {
    this.holdAt = undefined;
    this.onHold = undefined;
    let released = 0;
    for (const pipe of this.pipes) {
      const held = pipe.held;
      if (!held) continue;
      pipe.held = undefined;
      for (const chunk of held) {
        released += chunk.length;
        if (!pipe.server.destroyed) pipe.server.write(chunk);
      }
      // A client that went away meanwhile: what it sent still arrives, then the server sees it close.
      if (pipe.clientEnded) pipe.server.end();
      else pipe.client.resume();
    }
    return released;
  }

  /** Stops listening and ends every connection; held bytes are dropped, as a network that goes away drops them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.holdAt = undefined;
    this.onHold = undefined;
    for (const pipe of this.pipes) {
      pipe.client.destroy();
      pipe.server.destroy();
    }
    this.pipes.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.closed) {
      client.destroy();
      return;
    }
    const server = net.connect(this.target.port, this.target.host);
    const pipe: Pipe = {
      id: this.nextId++,
      client,
      server,
      pending: Buffer.alloc(0),
      startupDone: false,
      held: undefined,
      heldSince: 0,
      clientEnded: false,
    };
    this.pipes.add(pipe);
    client.setNoDelay(true);
    server.setNoDelay(true);
    const drop = () => {
      this.pipes.delete(pipe);
      client.destroy();
      server.destroy();
    };
    client.on('data', (chunk: Buffer) => this.fromClient(pipe, chunk));
    client.on('end', () => {
      pipe.clientEnded = true;
      if (!pipe.held) server.end();
    });
    server.on('data', (chunk: Buffer) => {
      if (!client.destroyed) client.write(chunk);
    });
    server.on('end', () => client.end());
    client.on('error', () => {
      // A client reset while its bytes are held: they stay held until released (then sent on).
      if (!pipe.held) drop();
    });
    server.on('error', drop);
    client.on('close', () => {
      pipe.clientEnded = true;
      if (!pipe.held) drop();
    });
    server.on('close', drop);
  }

  private fromClient(pipe: Pipe, chunk: Buffer): void {
    if (pipe.held) {
      pipe.held.push(chunk);
      return;
    }
    pipe.pending = Buffer.concat([pipe.pending, chunk]);
    for (;;) {
      const length = this.nextMessageLength(pipe);
      if (length === undefined || pipe.pending.length < length) return;
      const message = pipe.pending.subarray(0, length);
      pipe.pending = pipe.pending.subarray(length);
      if (this.holdAt && message.includes(this.holdAt)) {
        this.holdAt = undefined;
        // The statement and everything after it stay here; nothing more is read from the socket.
        pipe.held = [Buffer.from(message), Buffer.from(pipe.pending)];
        pipe.heldSince = Date.now();
        pipe.pending = Buffer.alloc(0);
        pipe.client.pause();
        const onHold = this.onHold;
        this.onHold = undefined;
        onHold?.({ bytes: pipe.held.reduce((n, b) => n + b.length, 0) });
        return;
      }
      pipe.server.write(message);
    }
  }

  /** The byte length of the next whole message in `pending`, or undefined while its header is incomplete. */
  private nextMessageLength(pipe: Pipe): number | undefined {
    const buf = pipe.pending;
    if (!pipe.startupDone) {
      if (buf.length < 8) return undefined;
      const length = buf.readInt32BE(0);
      const code = buf.readInt32BE(4);
      // SSL/GSS requests and cancels come before (or instead of) the startup message.
      if (code !== SSL_REQUEST && code !== GSS_REQUEST && code !== CANCEL_REQUEST) pipe.startupDone = true;
      return length;
    }
    if (buf.length < 5) return undefined;
    return 1 + buf.readInt32BE(1);
  }
}
