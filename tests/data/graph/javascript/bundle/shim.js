var process = module.exports = {};
process.cwd = function () {
  return '/';
};
