class Flag {
  constructor(n) {
    this.n = n;
  }

  label() {
    return this.n;
  }

  choices(values) {
    this.send = (v) => values.includes(v);
    return this;
  }
}

class Param {
  constructor(n) {
    this.n = n;
  }

  label() {
    return this.n;
  }

  choices(values) {
    this.send = function (v) {
      return values.includes(v);
    };
    return this;
  }

  check(v) {
    return this.send(v);
  }
}

class Registry {
  constructor() {
    /** @type {Param[]} */
    this.params = [];
    /** @type {Flag[]} */
    this.flags = [];
  }

  /**
   * @param {string} n
   * @return {Flag}
   */
  findFlag(n) {
    return this.flags.find((f) => f.label() === n);
  }

  last() {
    const previous = this.params.slice(-1)[0];
    previous.label();
    const first = this.flags[0];
    first.label();
    const rest = this.params.concat([]).reverse();
    rest.at(-1).label();
  }

  /**
   * @param {(Flag | Param)} target
   * @param {Flag} flag
   */
  sendWith(target, flag, value) {
    target.send(value);
    flag.send(value);
  }

  scan(args) {
    let active = null;
    for (const arg of args) {
      const flag = this.findFlag(arg);
      active = flag.variadic ? flag : null;
    }
    active.label();
    const picked = args.length ? this.params[0] : this.findFlag(args[0]);
    picked.label();
  }

  each(value) {
    const check = (param, v) => {
      param.label();
    };
    const other = (param) => {
      param.label();
    };
    const lone = (param) => {
      param.label();
    };
    this.params.forEach((declared) => {
      check(declared, value);
    });
    other(this.findFlag(value));
    function later(flags) {
      lone(flags[0]);
    }
    return later;
  }

  /**
   * @returns {Param[]}
   */
  visible() {
    return this.params;
  }

  show() {
    this.visible().forEach((p) => {
      p.label();
    });
  }
}

module.exports = { Flag, Param, Registry };
