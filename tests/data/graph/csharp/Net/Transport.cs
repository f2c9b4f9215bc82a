namespace Acme.Net
{
    public class Transport
    {
        private readonly string host;

        public Transport(string host)
        {
            this.host = host;
        }

        public virtual int Send(string data)
        {
            return Write(data);
        }

        public int Write(string data)
        {
            return data.Length + host.Length;
        }
    }

    public class RetryingTransport : Transport
    {
        public RetryingTransport(string host) : base(host)
        {
        }

        public override int Send(string data)
        {
            return base.Send(data) + Write(data);
        }
    }
}
