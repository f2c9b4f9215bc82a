'use strict';

module.exports = Layer;

function Layer(path, fn) {
  this.handle = fn;
  this.name = nameOf(fn);
  this.path = undefined;

  function nameOf(f) {
    return f.name || '<anonymous>';
  }
}

Layer.prototype = {
  constructor: Layer,

  handle_request: function handle(req, res, next) {
    this.match(req.url);
    return next();
  },

  handle_error: function handle_error(error, req, res, next) {
    return this.handle_request(req, res, next);
  },
};

Layer.match = function match(layers, path) {
  return layers.filter(function (l) { return l.match(path); });
};

Layer.prototype.match = function match(path) {
  return path === this.path;
};

function matching(layers, url) {
  var layer = new Layer(url, null);
  layer.match(url);
  return Layer.match(layers, url);
}
