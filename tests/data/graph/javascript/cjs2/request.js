'use strict';

module.exports = {
  get: function get(name) {
    return this.header(name);
  },

  header(name) {
    return name.toLowerCase();
  },

  accepts() {
    return this.get('Accept');
  },
};
