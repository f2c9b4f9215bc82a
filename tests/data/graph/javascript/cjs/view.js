function View(name) {
  this.name = name;
}

View.prototype.lookup = function lookup(name) {
  return name;
};

View.prototype.render = function (options) {
  return this.lookup(options);
};

function preview(name) {
  var v = new View(name);
  return v.render({});
}

module.exports = View;
