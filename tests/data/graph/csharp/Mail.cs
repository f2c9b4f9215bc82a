using Acme.Net;
using Retrying = Acme.Net.RetryingTransport;

namespace Acme
{
    public class Mailer
    {
        private readonly Transport transport = new Transport("smtp");

        public int Send(string msg)
        {
            return transport.Send(msg);
        }
    }

    public class Service
    {
        private Mailer mailer;

        public Service()
        {
            mailer = new Mailer();
        }

        public void Run(Transport link)
        {
            var m = new Mailer();
            m.Send("hi");
            Transport t = new Transport("smtp");
            t.Write("raw");
            var r = new Retrying("backup");
            r.Send("again");
            link.Send("x");
            mailer.Send("y");
            var s = "x".Trim();
            s.ToUpper();
        }
    }

    public static class Factory
    {
        public static Transport Make() => new Transport("smtp");

        public static int Use()
        {
            return Make().Write("x");
        }
    }
}
