// The desktop's sound: raw PCM (s16le, 48 kHz, stereo) from the computer's PulseAudio null
// sink, through the bridge with the computer's secret (+ "-audio"). Played through an
// AudioContext, which browsers start only after a click; a 100 ms buffer absorbs jitter.
const RATE = 48_000;
const CHANNELS = 2;
const BUFFER_S = 0.1;

export class SoundStream {
  private context: AudioContext | null = null;
  private socket: WebSocket | null = null;
  private playAt = 0;
  private carry = new Uint8Array(0);
  peak = 0;  // the loudest sample so far, 0..1 (tests and the button's hint)
  bytes = 0;

  get playing(): boolean {
    return this.socket !== null;
  }

  // Must run inside a user gesture (the click on "Sound on").
  start(url: string, onEnd: (reason: string) => void): void {
    this.stop();
    this.context = new AudioContext({ sampleRate: RATE });
    void this.context.resume();
    const socket = new WebSocket(url, ["binary"]);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => this.play(new Uint8Array(event.data as ArrayBuffer));
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.stop();
      onEnd("the sound stream closed");
    };
    this.socket = socket;
  }

  stop(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, "stopped");
    void this.context?.close();
    this.context = null;
    this.carry = new Uint8Array(0);
    this.playAt = 0;
  }

  private play(chunk: Uint8Array): void {
    const context = this.context;
    if (!context) return;
    this.bytes += chunk.length;
    // Frames are 4 bytes (two 16-bit channels); a chunk may end inside one.
    const data = new Uint8Array(this.carry.length + chunk.length);
    data.set(this.carry);
    data.set(chunk, this.carry.length);
    const frames = Math.floor(data.length / (2 * CHANNELS));
    this.carry = data.slice(frames * 2 * CHANNELS);
    if (frames === 0) return;
    const samples = new DataView(data.buffer, 0, frames * 2 * CHANNELS);
    const buffer = context.createBuffer(CHANNELS, frames, RATE);
    for (let channel = 0; channel < CHANNELS; channel += 1) {
      const out = buffer.getChannelData(channel);
      for (let i = 0; i < frames; i += 1) {
        const value = samples.getInt16((i * CHANNELS + channel) * 2, true) / 32768;
        out[i] = value;
        const magnitude = Math.abs(value);
        if (magnitude > this.peak) this.peak = magnitude;
      }
    }
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    const now = context.currentTime;
    if (this.playAt < now) this.playAt = now + BUFFER_S;
    source.start(this.playAt);
    this.playAt += buffer.duration;
  }
}
