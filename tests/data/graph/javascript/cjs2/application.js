'use strict';

var http = require('http');

/**
 * Application prototype.
 */
var app = {
  init: function init() {
    this.settings = {};
    this.defaultConfiguration();
  },

  defaultConfiguration: function defaultConfiguration() {
    this.set('x-powered-by', true);
  },

  set(setting, val) {
    this.settings[setting] = val;
    return this;
  },

  handle: function handle(req, res, callback) {
    this.lazyrouter();
    [req, res].forEach(function (it) {
      this.set('seen', it);
    });
  },

  lazyrouter() {
    return this.set('router', true);
  },

  enable: (setting) => this.set(setting, true),

  listen: function listen() {
    var server = http.createServer(this);
    return server.listen.apply(server, arguments);
  },
};

module.exports = app;
