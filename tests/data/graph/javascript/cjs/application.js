var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
  this.defaultConfiguration();
};

app.defaultConfiguration = function defaultConfiguration() {
  this.set('env', 'dev');
};

app.set = function set(setting, val) {
  return this;
};

app.handle = function handle(req, items) {
  items.forEach((item) => {
    this.set(item, 1);
  });
  items.forEach(function (item) {
    this.set(item, 2);
  });
};
