'use strict';

var path = require('path');

function Template() {}

Template.prototype.compile = function compile(str) {
  return str;
};

Template.prototype.header = function header(name) {
  return name;
};

function View(name, options) {
  this.name = name;
  this.ext = extname(name);
  this.path = this.lookup(name);

  function extname(n) {
    return path.extname(n);
  }
}

View.prototype = Object.create(Template.prototype);

View.prototype.lookup = function lookup(name) {
  return this.compile(name);
};

View.prototype.render = function render(options) {
  return this.lookup(options.name);
};

function extname(file) {
  return file;
}

module.exports = View;
