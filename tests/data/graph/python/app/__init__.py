from .net.transport import Transport as Transport
