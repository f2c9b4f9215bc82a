var proto = require('./application');
var router = require('./router');
var View = require('./view');
var mixin = require('merge-descriptors');

var app = {};
mixin(app, proto);

function createApplication() {
  app.init();
  router.set('a', 1);
  var v = new View('index');
  v.render({});
  return app;
}

var server = {};
Object.assign(server, router);

server.listen = function listen() {
  return this.set('port', 80);
};

var logger = {};
logger.__proto__ = router;

logger.log = function log(m) {
  return this.route(m);
};

exports.createApplication = createApplication;
