'use strict';

var Layer = require('./layer');

var proto = module.exports = function (options) {
  var opts = options || {};

  function router(req, res, next) {
    router.handle(req, res, next);
  }

  Object.setPrototypeOf(router, proto);

  router.params = {};
  router.stack = [];
  return router;
};

proto.use = function use(fn) {
  var layer = new Layer('/', fn);
  this.stack.push(layer);
  return this;
};

proto.handle = function handle(req, res, out) {
  var stack = this.stack;
  next();

  function next(err) {
    var layer = stack[0];
    layer.handle_request(req, res, next);
  }
};
