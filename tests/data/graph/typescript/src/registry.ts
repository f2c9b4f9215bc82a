import { Transport } from "./transport";

export class Hook {
  fire: (data: string) => number;

  constructor() {
    this.fire = (data: string) => data.length;
  }
}

export class Registry {
  items: Transport[] = [];
  hooks: Hook[] = [];

  last(): void {
    const previous = this.items.slice(-1)[0];
    previous.write("x");
    let active = null;
    for (const t of this.items) {
      active = t.host ? t : null;
    }
    active.send("y");
    this.hooks[0].fire("z");
  }

  each(): void {
    const use = (t: Transport | null, h) => {
      h.fire("w");
    };
    use(null, this.hooks[0]);
  }
}
