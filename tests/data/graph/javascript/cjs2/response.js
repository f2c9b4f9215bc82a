'use strict';

var res = module.exports = {
  send: function send(body) {
    this.set('Content-Length', body.length);
    return this.end(body);
  },

  set: function set(field, val) {
    return field + val;
  },

  end() {
    return this;
  },

  cookies: {
    set: function set(name) {
      this.clear(name);
    },

    clear: function clear(name) {
      return name;
    },
  },
};
