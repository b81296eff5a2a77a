// The WebSocket to the gateway: JSON requests out, JSON messages in, reconnecting with a
// growing delay when the gateway goes away.
export class Connection {
  constructor(url, { onMessage, onOpen, onStatus }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus;
    this.delayMs = 250;
    this.open();
  }

  open() {
    this.ws = new WebSocket(this.url);
    this.ws.onopen = () => {
      this.delayMs = 250;
      this.onStatus('connected');
      this.onOpen();
    };
    this.ws.onmessage = (event) => this.onMessage(JSON.parse(event.data));
    this.ws.onclose = () => {
      this.onStatus(`disconnected; retrying in ${(this.delayMs / 1000).toFixed(1)} s`);
      setTimeout(() => this.open(), this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, 5000);
    };
  }

  send(request) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(request));
  }
}
