function run(name) {
  return process.cwd() + '/' + name;
}
module.exports = run;
